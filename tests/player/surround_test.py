#!/usr/bin/python3
"""The player test (player_test.py) over a surround source (issue 38).

    surround_test.py hls|dash|shaka-hls|shaka-dash

The same package, page, players and checks as player_test.py, but the source's audio is AC-3
5.1(side) at 448 kb/s, as Blu-ray and broadcast rips carry it, instead of stereo AAC. AAC written
in that layout carries a program config element (channelConfiguration 0), which Chromium's MSE
refuses: hls.js then reports an audio SourceBuffer append error and neither audio nor video
plays. The package must play as the stereo one does. Exit status and environment as
player_test.py's (77: skipped, saying why).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import player_test  # noqa: E402

# One tone per channel, so that a remix that drops one would be audible.
TONES_HZ = (440, 550, 660, 110, 770, 880)


def make_surround_source(work):
    """player_test.make_source's clip and subtitles, its audio AC-3 5.1(side)."""
    source = work / "source.mkv"
    srt = work / "source.srt"
    srt.write_text("".join(
        f"{i + 1}\n{player_test._srt_time(start)} --> {player_test._srt_time(end)}\n{text}\n\n"
        for i, (start, end, text) in enumerate(player_test.SUBTITLE_CUES)))
    tones = "|".join(f"0.2*sin({hz}*2*PI*t)" for hz in TONES_HZ)
    player_test.run(player_test.FFMPEG + [
        "-f", "lavfi", "-i", f"testsrc2=size=1280x720:rate={player_test.FPS}",
        "-f", "lavfi", "-i", f"aevalsrc=exprs={tones}:s=48000:c=5.1(side)", "-i", str(srt),
        "-map", "0", "-map", "1", "-map", "2", "-t", str(player_test.CLIP_SECONDS),
        "-c:v", "libx264", "-preset", "ultrafast", "-crf", "18", "-pix_fmt", "yuv420p",
        "-c:a", "ac3", "-b:a", "448k", "-c:s", "srt",
        "-metadata:s:s:0", f"language={player_test.SUBTITLE_LANGUAGE}", str(source)])
    return source


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in ("hls", "dash", "shaka-hls", "shaka-dash"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    player_test.make_source = make_surround_source
    sys.exit(player_test.main(sys.argv))
