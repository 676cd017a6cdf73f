#!/usr/bin/python3
"""A real player plays our HLS and DASH packages (issue 12, "A real player").

    player_test.py hls|dash|hls-ts|shaka-hls|shaka-dash|shaka-hls-ts

Makes a short H.264/AAC clip and a 3-rung package of it (make_package), serves the package, the
page (player.html, player.js) and the players on 127.0.0.1, and has Debian's headless Chromium
play it with hls.js (HLS master playlist), dash.js (DASH MPD) or shaka-player (either manifest)
at the versions pinned in package.json / package-lock.json, installed with `npm ci` into a cache
outside the repo (hls-ts: the HLS package with MPEG-TS segments, which hls.js and shaka-player
each transmux with their own demuxer). The page
plays past START_SECONDS, switches to every video rendition the player lists and records the
size of a frame it shows of each; with shaka-player it then seeks to SEEK_SECONDS and plays to
the end. The test then checks what a viewer would: playback started,
every rendition of the package was offered and shown at the size ffprobe reads from its
segments, the source's subtitle track is listed with its language and, once selected, one of
its cues is active in the video's text tracks with the source's text and times while
currentTime is inside them, the seek landed where asked and playback reached the package's end
(shaka-player), and the player reported no error.

HEVC renditions are not played here: Chromium's MSE on this machine has no hvc1 (the page
records MediaSource.isTypeSupported for avc1, hvc1, av01 and mp4a); they are checked with ffprobe
only, by the package's own tests.

Exit status: 0 pass, 1 fail, 77 skip (ctest SKIP_RETURN_CODE) when the players are in neither
cache and the npm registry cannot be reached (decided in about a second), or Chromium/npm are
missing (scripts/deps build test installs them); the reason is printed. Once installed, the
players run offline.

Environment: TC_PLAYER_PRODUCER (ffmpeg, the default, or transcode: who makes the package; see
make_package), TC_PLAYER_CACHE (where npm ci installs the players; default
$XDG_CACHE_HOME/transcoded-player or ~/.cache/transcoded-player), TC_PLAYER_KEEP=1 (keep the temp
dir and print its path), TC_PLAYER_HTTP_LOG=1 (log every request the page makes).
"""

import contextlib
import fcntl
import hashlib
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse
from pathlib import Path
from typing import NamedTuple

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import serve  # noqa: E402 (next to this file)

SKIP = 77


class Rung(NamedTuple):
    width: int
    height: int
    bitrate: str


# Sizes with coded heights that are not multiples of 16 (540, 216), as real ladders have.
LADDER = (Rung(960, 540, "1500k"), Rung(640, 360, "800k"), Rung(384, 216, "300k"))
FPS = 30
# Short segments: a smooth switch reaches the screen two or three segments after it is asked
# for, so the clip holds START_SECONDS plus three segments per rendition, with room to spare.
SEGMENT_SECONDS = 1
CLIP_SECONDS = 20
START_SECONDS = 2
# Where the shaka-player cases seek after the switches (which end by about 12 s), paused: ahead,
# out of the 2 s buffer, on a frame (15.2 * FPS is whole) 0.2 s into a segment, whose keyframe
# (every segment starts with one) is 6 frames before it and the next segment's 0.8 s after it.
SEEK_SECONDS = 15.2
# How far the element's duration at the end may be from the clip's: AAC's last frame of 1024
# samples overhangs the video by up to 21 ms.
DURATION_TOLERANCE_S = 0.1
# Page time is paced to real time (player.js), so the budget is about a real-time limit; the
# page ends it early when done. Playback on a loaded 2-core machine runs at a quarter of real
# time or less, hence the room.
BUDGET_MS = 300_000
CHROMIUM_TIMEOUT_S = 420
NPM_TIMEOUT_S = 300

# Non-fatal hls.js errors that it recovers from by itself and that a viewer does not see; they
# come from a slow machine (stalls) or a start that is a frame or two late, not from a broken
# package. Every other error, fatal or not, fails the test.
RECOVERED_HLS_ERRORS = ("bufferStalledError", "bufferNudgeOnStall", "bufferSeekOverHole")
# With MPEG-TS segments and a separate audio group hls.js 1.7.4 also reports, non-fatally, that
# an early fragment's append did not grow the buffer, and plays on; the ffmpeg CLI's TS package
# (TC_PLAYER_PRODUCER=ffmpeg) gets the same report, so it says nothing of our segments.
RECOVERED_HLS_TS_ERRORS = RECOVERED_HLS_ERRORS + ("bufferAppendNoProgress",)


class Skip(Exception):
    """The test cannot run here; the message says why."""


def run(command, **kwargs):
    """Runs a command, raising with its output when it fails."""
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, command))} exited {result.returncode}:\n"
                           f"{result.stdout[-2000:]}{result.stderr[-4000:]}")
    return result.stdout


FFMPEG = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y"]


# The source's subtitle track (English, SRT): "Cue N" on screen from 2N + 0.25 s to 2N + 1.75 s,
# so that one is on screen within a second whenever the page looks.
SUBTITLE_LANGUAGE = "eng"
# What players may report it as: the manifests carry its canonical BCP 47 form ("en"); an older
# package said the container's ISO 639-2 code, which hls.js reported as it was.
SUBTITLE_LANGUAGE_SHOWN = ("eng", "en")
SUBTITLE_CUES = [(2 * n + 0.25, 2 * n + 1.75, f"Cue {n}") for n in range(CLIP_SECONDS // 2)]
# How far a cue's times in the player may be from the source's: a frame (players place a
# WebVTT segment's cues on the video's timeline through X-TIMESTAMP-MAP and their own offsets).
CUE_TOLERANCE_S = 1 / FPS + 0.001
# How late the page may see a cue after its start or end: activeCues follows timeupdate.
CUE_SEEN_SLACK_S = 0.3


def _srt_time(seconds):
    ms = round(seconds * 1000)
    return f"{ms // 3600000:02}:{ms // 60000 % 60:02}:{ms // 1000 % 60:02},{ms % 1000:03}"


def make_source(work):
    source = work / "source.mp4"
    srt = work / "source.srt"
    srt.write_text("".join(f"{i + 1}\n{_srt_time(start)} --> {_srt_time(end)}\n{text}\n\n"
                           for i, (start, end, text) in enumerate(SUBTITLE_CUES)))
    run(FFMPEG + ["-f", "lavfi", "-i", f"testsrc2=size=1280x720:rate={FPS}",
                  "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-i", str(srt),
                  "-map", "0", "-map", "1", "-map", "2",
                  "-t", str(CLIP_SECONDS), "-c:v", "libx264", "-preset", "ultrafast", "-crf", "18",
                  "-pix_fmt", "yuv420p", "-c:a", "aac", "-c:s", "mov_text",
                  "-metadata:s:s:0", f"language={SUBTITLE_LANGUAGE}", str(source)])
    return source


def _ffmpeg_ladder_args():
    """One decode, split and scaled to LADDER; aligned closed GOPs of one segment each."""
    splits = "".join(f"[s{i}]" for i in range(len(LADDER)))
    graph = [f"[0:v]split={len(LADDER)}{splits}"]
    graph += [f"[s{i}]scale={r.width}:{r.height}[v{i}]" for i, r in enumerate(LADDER)]
    args = ["-filter_complex", ";".join(graph)]
    for i in range(len(LADDER)):
        args += ["-map", f"[v{i}]"]
    args += ["-map", "0:a", "-c:v", "libx264", "-preset", "ultrafast",
             "-g", str(SEGMENT_SECONDS * FPS), "-keyint_min", str(SEGMENT_SECONDS * FPS),
             "-sc_threshold", "0", "-c:a", "aac", "-b:a", "128k"]
    for i, rung in enumerate(LADDER):
        args += [f"-b:v:{i}", rung.bitrate]
    return args


def _ffmpeg_hls(source, out_dir, segment_format="fmp4"):
    """HLS (fMP4 or MPEG-TS segments): a master playlist, a media playlist per rendition, audio
    as its own group."""
    hls = out_dir / "hls"
    streams = [f"v:{i},agroup:audio" for i in range(len(LADDER))] + ["a:0,agroup:audio"]
    segment_type, extension = ("mpegts", "ts") if segment_format == "ts" else ("fmp4", "m4s")
    run(FFMPEG + ["-i", str(source)] + _ffmpeg_ladder_args() + [
        "-f", "hls", "-hls_time", str(SEGMENT_SECONDS), "-hls_playlist_type", "vod",
        "-hls_segment_type", segment_type,
        "-hls_segment_filename", str(hls / "v%v" / f"seg_%03d.{extension}"),
        "-master_pl_name", "master.m3u8", "-var_stream_map", " ".join(streams),
        str(hls / "v%v" / "index.m3u8")])
    return hls / "master.m3u8"


def _ffmpeg_dash(source, out_dir):
    """DASH: one MPD, one adaptation set for the video renditions and one for audio."""
    dash = out_dir / "dash"
    dash.mkdir(parents=True)
    run(FFMPEG + ["-i", str(source)] + _ffmpeg_ladder_args() + [
        "-f", "dash", "-seg_duration", str(SEGMENT_SECONDS), "-use_template", "1",
        "-adaptation_sets", "id=0,streams=v id=1,streams=a", str(dash / "manifest.mpd")])
    return dash / "manifest.mpd"


def _transcode_package(source, out_dir, segment_format="fmp4"):
    """`transcode run --package cmaf` (both manifests over one set of CMAF segments), or
    `--package hls --segment-format ts`; TC_TRANSCODE names the binary (ctest sets it)."""
    transcode = os.environ.get("TC_TRANSCODE")
    if not transcode:
        raise RuntimeError("TC_TRANSCODE (the transcode binary) is not set; ctest sets it")
    package = ["hls", "--segment-format", "ts"] if segment_format == "ts" else ["cmaf"]
    command = [transcode, "run", str(source), "--package", *package, "--package-dir", str(out_dir),
               "--segment", str(SEGMENT_SECONDS), "--codec", "h264", "--encoder-preset", "ultrafast",
               "--backend", "software", "--quiet"]
    for rung in LADDER:
        command += ["-o", f"{rung.height}p", "--size", f"{rung.width}x{rung.height}",
                    "--bitrate", rung.bitrate]
    run(command)
    return {"hls": out_dir / "master.m3u8", "dash": out_dir / "manifest.mpd"}


def _ffmpeg_package(source, out_dir, segment_format="fmp4"):
    if segment_format == "ts":
        return {"hls": _ffmpeg_hls(source, out_dir, segment_format)}
    return {"hls": _ffmpeg_hls(source, out_dir), "dash": _ffmpeg_dash(source, out_dir)}


PRODUCERS = {"ffmpeg": _ffmpeg_package, "transcode": _transcode_package}


def make_package(source, out_dir, segment_format="fmp4"):
    """The package under test: {'hls': master playlist path, 'dash': MPD path}, under out_dir,
    with one H.264 video rendition per LADDER rung plus AAC audio, segments of SEGMENT_SECONDS
    (segment_format "ts": HLS alone, with MPEG-TS segments).

    Made by our packager (`transcode run --package cmaf`); TC_PLAYER_PRODUCER=ffmpeg plays the
    ffmpeg CLI's (hls muxer with -var_stream_map, dash muxer) instead, to tell a fault of the
    package from one of the player. Nothing else in this file depends on who made it."""
    producer = os.environ.get("TC_PLAYER_PRODUCER", "transcode")
    if producer not in PRODUCERS:
        raise RuntimeError(f"TC_PLAYER_PRODUCER={producer}: ffmpeg or transcode")
    return PRODUCERS[producer](source, out_dir, segment_format)


def _video_streams(media_url, options=()):
    """The video streams ffprobe reads from media_url: [{width, height, tags: {id}}]."""
    return json.loads(run(["ffprobe", "-v", "error", *options, "-select_streams", "v",
                           "-show_entries", "stream=width,height:stream_tags=id",
                           "-of", "json", media_url])).get("streams", [])


def probe_hls(master):
    """{variant playlist path relative to the package: (width, height)} for every video variant
    of the master playlist, read by ffprobe from its segments."""
    lines = master.read_text().splitlines()
    variants = [lines[i + 1].strip() for i, line in enumerate(lines[:-1])
                if line.startswith("#EXT-X-STREAM-INF")]
    sizes = {}
    for uri in variants:
        playlist = (master.parent / urllib.parse.unquote(uri)).resolve()
        streams = _video_streams(str(playlist))
        if streams:  # audio-only variants have no picture to compare
            sizes[playlist] = (streams[0]["width"], streams[0]["height"])
    return sizes


def probe_dash(mpd):
    """{Representation id: (width, height)} for every video representation of the MPD, read by
    ffprobe's dash demuxer from the segments (it names each stream by its Representation id).
    The demuxer opens only files with the extensions of its list unless allowed_extensions says
    otherwise, and the subtitles' WebVTT document (subs.vtt) is not on it."""
    streams = _video_streams("file:" + str(mpd.resolve()), ("-allowed_extensions", "ALL"))
    return {s["tags"]["id"]: (s["width"], s["height"]) for s in streams}


@contextlib.contextmanager
def _locked(path):
    with open(path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


# How long npm may take to answer a ping before the registry counts as unreachable: a refused
# connection fails at once, a dropped one within this; npm's default retries would take minutes.
PING_TIMEOUT_MS = 2000


def _registry_unreachable():
    """None where npm ping answers; otherwise npm's reason, e.g. "self-signed certificate in
    certificate chain" behind a TLS-intercepting proxy whose CA npm is not told of (cafile)."""
    try:
        result = subprocess.run(["npm", "ping", "--fetch-retries=0",
                                 f"--fetch-timeout={PING_TIMEOUT_MS}"], capture_output=True,
                                text=True, timeout=PING_TIMEOUT_MS / 1000 + 10)
    except (subprocess.SubprocessError, OSError) as error:
        return str(error)
    if result.returncode == 0:
        return None
    reasons = [line for line in result.stderr.splitlines()
               if "reason:" in line or " code " in line or "ERR" in line]
    return "; ".join(line.removeprefix("npm error ").strip() for line in reasons[-2:]) or \
        f"exit {result.returncode}: {result.stderr.strip()[-300:]}"


def _npm_ci(cache, network_flag):
    return subprocess.run(["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", network_flag],
                          cwd=cache, capture_output=True, text=True, timeout=NPM_TIMEOUT_S)


def install_players():
    """npm ci of package-lock.json into a cache dir keyed by the lock's hash; its node_modules.
    Once installed there, the players need no network. Otherwise the registry is pinged first
    (about a second where it cannot be reached): reachable, npm ci prefers npm's own cache;
    unreachable, npm ci runs from that cache alone, and raises Skip where it lacks the players,
    saying npm's reason (no route, no DNS, a certificate it does not trust)."""
    lock_file = HERE / "package-lock.json"
    key = hashlib.sha256(lock_file.read_bytes()).hexdigest()[:16]
    base = os.environ.get("TC_PLAYER_CACHE") or Path(
        os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "transcoded-player"
    cache = Path(base) / key
    cache.mkdir(parents=True, exist_ok=True)
    installed = cache / "installed"
    with _locked(cache.parent / f"{key}.lock"):  # ctest -j runs the hls and dash tests at once
        if installed.exists():
            return cache / "node_modules"
        for name in ("package.json", "package-lock.json"):
            shutil.copyfile(HERE / name, cache / name)
        unreachable = _registry_unreachable()
        if unreachable is None:
            result = _npm_ci(cache, "--prefer-offline")
            if result.returncode != 0:
                raise RuntimeError(f"npm ci failed in {cache}:\n{result.stderr[-3000:]}")
        else:
            result = _npm_ci(cache, "--offline")
            if result.returncode != 0:
                raise Skip(f"the npm registry cannot be reached (npm ping: {unreachable}) and "
                           "npm's cache lacks the players (package-lock.json), so they cannot be "
                           f"installed:\n{result.stderr[-1500:]}")
        installed.write_text(key)
    return cache / "node_modules"


def play(page_url, profile, log_file):
    """Runs the page in headless Chromium; the page's report (dict) from the dumped DOM."""
    command = ["chromium", "--headless", "--no-sandbox",
               "--autoplay-policy=no-user-gesture-required",
               f"--virtual-time-budget={BUDGET_MS}",
               # No GPU here, and no network beyond loopback: nothing to reach for.
               "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-sync",
               "--disable-background-networking", "--disable-component-update",
               # A headless page counts as hidden: keep its timers and media running as a
               # visible tab's would (the flags browser-automation tools pass for this).
               "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
               "--disable-backgrounding-occluded-windows", "--disable-background-media-suspend",
               f"--user-data-dir={profile}", "--dump-dom", page_url]
    with open(log_file, "w") as log:
        result = subprocess.run(command, stdout=subprocess.PIPE, stderr=log, text=True,
                                timeout=CHROMIUM_TIMEOUT_S)
    match = re.search(r'<pre id="result">(.*?)</pre>', result.stdout, re.S)
    if result.returncode != 0 or not match:
        raise RuntimeError(f"chromium exited {result.returncode} without the page's report; "
                           f"its log ends:\n{Path(log_file).read_text()[-3000:]}")
    return json.loads(html.unescape(match.group(1)))


def segment_owners(playlists):
    """{segment or init segment path: the media playlist that lists it} for HLS playlists."""
    owners = {}
    for playlist in playlists:
        for line in playlist.read_text().splitlines():
            map_uri = re.match(r'#EXT-X-MAP:.*URI="([^"]+)"', line)
            uri = map_uri.group(1) if map_uri else ("" if line.startswith("#") else line.strip())
            if uri:
                owners[(playlist.parent / urllib.parse.unquote(uri)).resolve()] = playlist
    return owners


def rendition_key(case, rendition, package_dir, owners):
    """The key under which the probe knows the rendition the player listed: for DASH its
    Representation id (shaka-player numbers its tracks itself and keeps the id as originalId),
    for HLS its media playlist (hls.js names it; for shaka-player the page names the first
    segment fetched for it, and `owners` (segment_owners) the playlist that lists that)."""
    if case.manifest == "dash":
        return rendition.get("originalId") or rendition["id"]
    if not rendition.get("url"):
        return f"rendition {rendition['id']}, no segment fetched"
    path = (package_dir / Path(rendition["url"]).relative_to("/media")).resolve()
    return owners.get(path, path)


def check_subtitles(report):
    """The subtitle track is listed with its language and, once selected, a cue of the source
    is on screen with its text while currentTime is inside its times; a list of problems."""
    subtitles = report.get("subtitles") or {}
    tracks = subtitles.get("tracks") or []
    if len(tracks) != 1 or tracks[0].get("language") not in SUBTITLE_LANGUAGE_SHOWN:
        return [f"the player lists subtitle tracks {tracks}, expected one in {SUBTITLE_LANGUAGE}"]
    cue = subtitles.get("cue")
    if not cue:
        return ["no subtitle cue was ever active in the video's text tracks"]
    source = [c for c in SUBTITLE_CUES if c[2] == cue["text"]]
    if not source:
        return [f"the active cue's text {cue['text']!r} is none of the source's"]
    start, end, _ = source[0]
    problems = []
    if abs(cue["startTime"] - start) > CUE_TOLERANCE_S or abs(cue["endTime"] - end) > CUE_TOLERANCE_S:
        problems.append(f"cue {cue['text']!r} is placed at {cue['startTime']:.3f}-{cue['endTime']:.3f}"
                        f" s, the source has it at {start:.3f}-{end:.3f} s")
    if not start - CUE_SEEN_SLACK_S <= cue["currentTime"] <= end + CUE_SEEN_SLACK_S:
        problems.append(f"cue {cue['text']!r} was on screen at {cue['currentTime']:.3f} s, outside "
                        f"its {start:.3f}-{end:.3f} s")
    return problems


def check_seek_and_end(report):
    """The seek landed where asked, the first frame shown after it is the one there, and
    playback went on to the end of the clip; a list of problems."""
    seek, ended = report.get("seek"), report.get("ended")
    if not seek or seek.get("frame") is None:
        return [f"the seek to {SEEK_SECONDS} s did not complete ({seek})"]
    problems = []
    if abs(seek["seekedAt"] - SEEK_SECONDS) > 1 / FPS:
        problems.append(f"the seek to {SEEK_SECONDS} s landed at {seek['seekedAt']} s")
    shown = seek["frame"]["mediaTime"]
    # Paused, the frame shown is the one on screen at the target: a frame's time or the one
    # before it (a frame lasts 1/FPS), not the segment's keyframe before it nor the next one.
    if abs(shown - SEEK_SECONDS) > 1 / FPS + 0.001:
        problems.append(f"the frame shown after the seek to {SEEK_SECONDS} s is at {shown} s")
    if not ended:
        return problems + ["playback did not reach the end"]
    if abs(ended["duration"] - CLIP_SECONDS) > DURATION_TOLERANCE_S:
        problems.append(f"the player says the programme lasts {ended['duration']} s, "
                        f"the clip {CLIP_SECONDS} s")
    if ended["currentTime"] < ended["duration"] - 1 / FPS:
        problems.append(f"playback ended at {ended['currentTime']} s of {ended['duration']} s")
    return problems


def check(case, report, probed, package_dir, recovered_errors=RECOVERED_HLS_ERRORS):
    """What a viewer would check; a list of problems, empty when all is well."""
    problems = []
    if not report.get("done"):
        problems.append(f"the page did not finish; it stopped at: {report.get('step')}")
    if report.get("playedTo") is None or report["playedTo"] < START_SECONDS:
        problems.append(f"playback did not pass {START_SECONDS} s (reached {report.get('playedTo')})")
    for error in report.get("errors", []):
        recovered = (error["source"] == "hls.js" and not error["fatal"]
                     and any(name in error["detail"] for name in recovered_errors))
        if recovered:
            print(f"note: hls.js recovered from: {error['detail']}")
        else:
            problems.append(f"player error ({error['source']}, fatal={error['fatal']}, "
                            f"at {error['at']} s): {error['detail']}")
    for nudge in report.get("nudges", []):
        print(f"note: the page restarted a playback stall at {nudge['at']} s with "
              f"{nudge['bufferedAhead']:.2f} s buffered ahead (Chromium under load)")
    owners = segment_owners(probed) if case.manifest == "hls" else {}
    listed = {rendition_key(case, r, package_dir, owners): r for r in report.get("renditions", [])}
    if set(listed) != set(probed):
        problems.append(f"the player lists renditions {sorted(map(str, listed))}, the package has "
                        f"{sorted(map(str, probed))}")
    for key, rendition in listed.items():
        expected = probed.get(key)
        name = f"rendition {rendition['id']} ({key})"
        if expected and (rendition["width"], rendition["height"]) != expected:
            problems.append(f"{name}: the manifest says {rendition['width']}x{rendition['height']},"
                            f" the segments are {expected[0]}x{expected[1]}")
        shown = rendition.get("shown")
        if not shown:
            problems.append(f"{name}: never shown")
            continue
        seen = {"videoWidth x videoHeight": (shown["videoWidth"], shown["videoHeight"]),
                "the frame on screen": (shown["width"], shown["height"])}
        for what, size in seen.items():
            if expected and size != expected:
                problems.append(f"{name}: {what} is {size[0]}x{size[1]} at {shown['mediaTime']} s,"
                                f" the segments are {expected[0]}x{expected[1]}")
    if case.seek:
        problems += check_seek_and_end(report)
    return problems


class Case(NamedTuple):
    player: str          # the page's player: hls (hls.js), dash (dash.js) or shaka (shaka-player)
    manifest: str        # the package's manifest it plays: hls or dash
    segment_format: str  # the package's segments: fmp4 or ts
    seek: bool           # after the switches, seek to SEEK_SECONDS and play to the end


KINDS = {
    "hls": Case("hls", "hls", "fmp4", False),
    "dash": Case("dash", "dash", "fmp4", False),
    "hls-ts": Case("hls", "hls", "ts", False),
    "shaka-hls": Case("shaka", "hls", "fmp4", True),
    "shaka-dash": Case("shaka", "dash", "fmp4", True),
    "shaka-hls-ts": Case("shaka", "hls", "ts", True),
}


def test(kind, work):
    case = KINDS[kind]
    node_modules = install_players()
    source = make_source(work)
    package_dir = work / "package"
    manifest = make_package(source, package_dir, case.segment_format)[case.manifest]
    probed = probe_hls(manifest) if case.manifest == "hls" else probe_dash(manifest)
    expected_sizes = sorted((r.width, r.height) for r in LADDER)
    if sorted(probed.values()) != expected_sizes:
        return [f"ffprobe reads video renditions {sorted(probed.values())} in the package, "
                f"expected {expected_sizes}"]
    routes = {"/": HERE, "/lib": node_modules, "/media": package_dir}
    with serve.Server(routes) as server:
        query = {"player": case.player, "src": "/media/" + str(manifest.relative_to(package_dir)),
                 "start": START_SECONDS, "dwell": 0.5, "buffer": 2 * SEGMENT_SECONDS}
        if case.seek:
            query["seek"] = SEEK_SECONDS
        report = play(f"{server.url}/player.html?{urllib.parse.urlencode(query)}",
                      work / "profile", work / "chromium.log")
    print(f"{kind}: {report.get('player')} {report.get('version')}; MSE support {report.get('mse')}")
    print(f"played to {report.get('playedTo')} s before switching; renditions:")
    for rendition in report.get("renditions", []):
        print(f"  {rendition['id']}: listed {rendition['width']}x{rendition['height']} "
              f"{rendition['codecs']} {rendition['bandwidth']} b/s; shown {rendition.get('shown')}")
    print("page trace:\n  " + "\n  ".join(report.get("trace", [])))
    subtitles = report.get("subtitles") or {}
    print(f"subtitle tracks: {subtitles.get('tracks')}; first active cue: {subtitles.get('cue')}")
    if case.seek:
        print(f"seek: {report.get('seek')}; at the end: {report.get('ended')}")
    recovered = RECOVERED_HLS_TS_ERRORS if case.segment_format == "ts" else RECOVERED_HLS_ERRORS
    problems = check(case, report, probed, package_dir, recovered)
    # The ffmpeg CLI's packages (TC_PLAYER_PRODUCER=ffmpeg) carry no subtitles.
    if os.environ.get("TC_PLAYER_PRODUCER", "transcode") == "transcode":
        problems += check_subtitles(report)
    return problems


def main(argv):
    if len(argv) != 2 or argv[1] not in KINDS:
        print(__doc__, file=sys.stderr)
        return 2
    kind = argv[1]
    for tool in ("chromium", "npm"):
        if not shutil.which(tool):
            print(f"SKIP: {tool} is not installed (scripts/deps build test installs it)")
            return SKIP
    work = Path(tempfile.mkdtemp(prefix=f"tc-player-{kind}-"))
    try:
        problems = test(kind, work)
    except Skip as skip:
        print(f"SKIP: {skip}")
        return SKIP
    finally:
        if os.environ.get("TC_PLAYER_KEEP") == "1":
            print(f"kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    for problem in problems:
        print(f"FAIL: {problem}")
    if not problems:
        end = ", the seek landed and it played to the end" if KINDS[kind].seek else ""
        print(f"PASS: {kind} played, every rendition shown at its size{end}, no player error")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
