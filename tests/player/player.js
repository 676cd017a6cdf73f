// The player test's page: plays an HLS master (hls.js) or a DASH MPD (dash.js), or either with
// shaka-player, as a viewer would, then switches to every video rendition the player lists
// (and, given seek=S, seeks to S and plays to the end), and writes what it saw into
// <pre id="result"> as JSON, rewritten at every step so that a run cut short still tells how far
// it got. tests/player/player_test.py reads it from `chromium --dump-dom` and judges it; this
// page only observes.
//
// Query: ?player=hls|dash|shaka&src=URL&start=S&dwell=S&buffer=S&step=S&seek=S
//   start: play this far before the first switch; dwell: how far into a rendition the frame
//   whose size is read lies; buffer: the players' forward buffer, short so that a switch
//   reaches the screen within a segment or two; step: the most any one step may take;
//   seek (optional): after the switches, seek to this time and play to the end.
'use strict';

const params = new URLSearchParams(location.search);
const video = document.getElementById('video');
const startSeconds = Number(params.get('start') || 2);
const dwellSeconds = Number(params.get('dwell') || 0.5);
const bufferSeconds = Number(params.get('buffer') || 4);
const stepSeconds = Number(params.get('step') || 120);
const seekSeconds = params.has('seek') ? Number(params.get('seek')) : null;
const stallSeconds = 10;

const report = {
  player: params.get('player'),
  src: params.get('src'),
  version: null,
  step: 'starting',
  done: false,
  mse: {},          // MediaSource.isTypeSupported for the codecs a package may carry
  playedTo: null,   // currentTime reached before the first switch
  renditions: [],   // every video rendition the player lists, with what was shown on it
  errors: [],       // every error the player or the media element reported
  nudges: [],       // playback stalls with data buffered ahead that the page restarted
  subtitles: null,  // {tracks: the subtitle tracks the player lists, cue: the first active cue}
  seek: null,       // {to, seekedAt: currentTime at 'seeked', frame: the first frame shown after}
  ended: null,      // {currentTime, duration} at 'ended', when the page played to the end
  trace: [],        // switches and picture-size changes, for reading a failure
};

function publish() {
  document.getElementById('result').textContent = JSON.stringify(report, null, 1);
}

function step(name) {
  report.step = name;
  publish();
}

function trace(what) {
  report.trace.push(`t=${video.currentTime.toFixed(3)} ${what}`);
  publish();
}

function recordError(source, fatal, detail) {
  report.errors.push({source, fatal, detail, at: video.currentTime});
  publish();
}

const codecProbes = {
  avc1: 'video/mp4; codecs="avc1.64001f"',
  hvc1: 'video/mp4; codecs="hvc1.1.6.L93.B0"',
  av01: 'video/mp4; codecs="av01.0.05M.08"',
  mp4a: 'audio/mp4; codecs="mp4a.40.2"',
};
for (const [name, type] of Object.entries(codecProbes)) {
  report.mse[name] = window.MediaSource ? MediaSource.isTypeSupported(type) : false;
}

video.addEventListener('error', () => {
  const error = video.error;
  recordError('video element', true, error ? `code ${error.code}: ${error.message}` : 'unknown');
});
// Playback may end only in the last step, and only where the page asked for it (seek=S).
let endExpected = false;
video.addEventListener('ended', () => {
  if (!endExpected) recordError('page', true, `playback ended during step "${report.step}"`);
});
video.addEventListener('resize', () => trace(`resize ${video.videoWidth}x${video.videoHeight}`));

// Chromium's --virtual-time-budget runs page time (timers, Date, performance.now) as fast as
// the page is idle, while media plays in real time: unpaced, page time runs about ten times
// faster, the budget ends before a few seconds have played, and hls.js reports stalls that are
// not there. Virtual time stands still while a fetch is pending, so a chain of real 100 ms
// waits on the server (/pace), each followed by a 100 ms timer, keeps page time from outrunning
// real time. It stops when the page is done, and the budget then runs out at once.
let pacing = true;
async function pace() {
  for (let tick = 1; pacing; tick++) {
    await fetch('/pace?ms=100', {cache: 'no-store'});
    await new Promise(resolve => setTimeout(resolve, 100));
    if (tick % 50 === 0) traceMediaState();  // about every 10 s: what a stall looks like
    nudgeIfStalled();
  }
}

// On a loaded 2-core machine Chromium's pipeline sometimes stops for good with seconds of
// media buffered ahead (readyState 4, not paused; seen with ffmpeg's packages and ours alike,
// before any switch too). Players nudge such stalls themselves when they see them; here a
// seek to where playback stands restarts it. Only with data buffered ahead, so a package with
// a hole or a missing segment still stalls and fails; every nudge is in the report.
let lastTime = -1;
let stalledSince = null;
function nudgeIfStalled() {
  const now = performance.now();
  const time = video.currentTime;
  const buffered = video.buffered;
  const ahead = buffered.length ? buffered.end(buffered.length - 1) - time : 0;
  if (video.paused || time !== lastTime || ahead < 0.5) {
    lastTime = time;
    stalledSince = null;
    return;
  }
  if (stalledSince === null) stalledSince = now;
  if (now - stalledSince < stallSeconds * 1000) return;
  report.nudges.push({at: time, bufferedAhead: ahead});
  trace(`nudged playback stalled at ${time.toFixed(3)} with ${ahead.toFixed(3)} s buffered ahead`);
  stalledSince = null;
  video.currentTime = time;
}

function traceMediaState() {
  const ranges = [];
  for (let i = 0; i < video.buffered.length; i++) {
    ranges.push(`${video.buffered.start(i).toFixed(3)}-${video.buffered.end(i).toFixed(3)}`);
  }
  trace(`readyState ${video.readyState} paused ${video.paused} buffered ${ranges.join(' ')}`);
}

// Resolves once playback has reached `seconds`.
function playedPast(seconds) {
  return new Promise(resolve => {
    const check = () => {
      if (video.currentTime < seconds) return;
      video.removeEventListener('timeupdate', check);
      resolve(video.currentTime);
    };
    video.addEventListener('timeupdate', check);
    check();
  });
}

// Resolves with the first frame put on screen whose media time is at least `seconds`:
// {mediaTime, width, height} of that frame, and videoWidth/videoHeight as they are then.
// currentTime is not enough: in headless Chromium it runs up to a second behind or ahead of
// the frame on screen, so the picture size read at a currentTime can be the previous
// rendition's.
function frameShownAt(seconds) {
  return new Promise(resolve => {
    const onFrame = (now, frame) => {
      if (frame.mediaTime < seconds) {
        video.requestVideoFrameCallback(onFrame);
        return;
      }
      resolve({mediaTime: frame.mediaTime, width: frame.width, height: frame.height,
               videoWidth: video.videoWidth, videoHeight: video.videoHeight});
    };
    video.requestVideoFrameCallback(onFrame);
  });
}

// Resolves with the first cue active in a shown (or hidden) text track of the video element,
// where players put the subtitles they render: its text and times, the track's language, and
// currentTime when it was seen.
function activeCue() {
  return new Promise(resolve => {
    const check = () => {
      for (const track of video.textTracks) {
        if (track.mode === 'disabled' || !track.activeCues || !track.activeCues.length) continue;
        const cue = track.activeCues[0];
        video.removeEventListener('timeupdate', check);
        resolve({text: cue.text, startTime: cue.startTime, endTime: cue.endTime,
                 currentTime: video.currentTime, language: track.language, label: track.label});
        return;
      }
    };
    video.addEventListener('timeupdate', check);
    check();
  });
}

// Rejects if `promise` has not settled within `seconds` of page time (paced to about real
// time): a player that stops for good fails the run with its trace at once, not at the budget.
function within(seconds, what, promise) {
  let timer;
  const timeout = new Promise((resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing after ${seconds} s`)), seconds * 1000);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// Each adapter: version, ready (resolves when the renditions are known), subtitles() (lists the
// subtitle tracks {id, language, name} and selects the first for display), list() of
// {id, width, height, bandwidth, codecs, url}, current() = id of the rendition playing,
// select(id), which resolves once playback has reached that rendition's first segment, and
// stop(). Selections are smooth switches at a segment boundary, as an ABR switch would be: the
// segments already buffered play out and the next ones loaded are the new rendition's, so no
// stale frames reach the screen.
function hlsAdapter(src) {
  const hls = new Hls({capLevelToPlayerSize: false, maxBufferLength: bufferSeconds,
                       maxMaxBufferLength: bufferSeconds});
  hls.on(Hls.Events.ERROR, (event, data) => recordError(
      'hls.js', data.fatal, `${data.type} ${data.details}` + (data.error ? `: ${data.error.message}` : '')));
  hls.on(Hls.Events.LEVEL_SWITCHED, (event, data) => trace(`hls.js level switched to ${data.level}`));
  const ready = new Promise(resolve => hls.on(Hls.Events.MANIFEST_PARSED, resolve));
  hls.loadSource(src);
  hls.attachMedia(video);
  return {
    version: Hls.version,
    ready,
    list: () => hls.levels.map((level, index) => ({
      id: String(index), width: level.width, height: level.height, bandwidth: level.bitrate,
      codecs: [level.videoCodec, level.audioCodec].filter(Boolean).join(','),
      url: new URL(level.uri || level.url, location.href).pathname,
    })),
    subtitles: () => {
      const tracks = hls.subtitleTracks.map(track => ({id: String(track.id), language: track.lang,
                                                       name: track.name}));
      hls.subtitleDisplay = true;
      if (tracks.length) hls.subtitleTrack = 0;
      return tracks;
    },
    current: () => String(hls.currentLevel),
    select: id => new Promise(resolve => {
      const index = Number(id);
      const onFragChanged = (event, data) => {
        if (data.frag.level !== index) return;
        hls.off(Hls.Events.FRAG_CHANGED, onFragChanged);
        resolve();
      };
      hls.on(Hls.Events.FRAG_CHANGED, onFragChanged);
      // Manual from now on (no ABR): the next segment loaded is this rendition's, nothing
      // buffered is removed (nextLevel's flush of the buffer ahead could stall Chromium for good
      // under load, seen here), as an ABR switch does.
      hls.loadLevel = index;
    }),
    stop: () => hls.destroy(),
  };
}

function dashAdapter(src) {
  const player = dashjs.MediaPlayer().create();
  const events = dashjs.MediaPlayer.events;
  player.updateSettings({
    debug: {logLevel: dashjs.Debug.LOG_LEVEL_WARNING},
    streaming: {
      abr: {autoSwitchBitrate: {video: false, audio: false}},
      buffer: {fastSwitchEnabled: false, bufferTimeDefault: bufferSeconds,
               bufferTimeAtTopQuality: bufferSeconds, bufferTimeAtTopQualityLongForm: bufferSeconds},
    },
  });
  const describe = event => {
    const error = event.error || event;
    return `${error.code !== undefined ? error.code + ' ' : ''}${error.message || JSON.stringify(error)}`;
  };
  player.on(events.ERROR, event => recordError('dash.js', true, describe(event)));
  player.on(events.PLAYBACK_ERROR, event => recordError('dash.js playback', true, describe(event)));
  player.on(events.QUALITY_CHANGE_RENDERED, event => {
    if (event.mediaType === 'video') trace(`dash.js rendering representation ${event.newRepresentation.id}`);
  });
  const ready = new Promise(resolve => player.on(events.STREAM_INITIALIZED, resolve));
  player.initialize(video, src, true);
  return {
    version: player.getVersion(),
    ready,
    list: () => player.getRepresentationsByType('video').map(representation => ({
      id: representation.id, width: representation.width, height: representation.height,
      bandwidth: representation.bandwidth, codecs: representation.codecs, url: null,
    })),
    subtitles: () => {
      const tracks = player.getTracksFor('text').map(track => ({
        id: String(track.id), language: track.lang,
        name: track.labels && track.labels.length ? track.labels[0].text : null}));
      if (tracks.length) {
        player.enableText(true);
        player.setTextTrack(0);
      }
      return tracks;
    },
    current: () => {
      const representation = player.getCurrentRepresentationForType('video');
      return representation ? representation.id : null;
    },
    select: id => new Promise(resolve => {
      const onRendered = event => {
        if (event.mediaType !== 'video' || event.newRepresentation.id !== id) return;
        player.off(events.QUALITY_CHANGE_RENDERED, onRendered);
        resolve();
      };
      player.on(events.QUALITY_CHANGE_RENDERED, onRendered);
      player.setRepresentationForTypeById('video', id, false);  // false: no buffer replacement
    }),
    stop: () => player.reset(),
  };
}

// shaka-player plays HLS and DASH alike. Its tracks do not name their playlist, so the page
// learns each video rendition's segments from the requests shaka makes (a response filter sees
// the stream and the segment of each): url() is the path of the first segment fetched for a
// rendition, and select() resolves once playback reaches the first segment fetched for it after
// the selection. Errors carry shaka's numeric code and category (shaka.util.Error), named.
function shakaAdapter(src) {
  shaka.polyfill.installAll();
  if (!shaka.Player.isBrowserSupported()) throw new Error('shaka-player: browser not supported');
  const player = new shaka.Player();
  player.configure({
    abr: {enabled: false},
    streaming: {bufferingGoal: bufferSeconds, rebufferingGoal: 1, bufferBehind: 30},
  });
  const names = (table, value) =>
      Object.keys(table).find(name => table[name] === value) || String(value);
  const recorded = new Set();
  const recordShakaError = error => {
    if (recorded.has(error)) return;
    recorded.add(error);
    const Error = shaka.util.Error;
    recordError('shaka-player', error.severity === Error.Severity.CRITICAL,
                `code ${error.code} (${names(Error.Code, error.code)}) category ${error.category}` +
                ` (${names(Error.Category, error.category)})` +
                (error.data && error.data.length ?
                     `: ${JSON.stringify(error.data).slice(0, 300)}` : ''));
  };
  player.addEventListener('error', event => recordShakaError(event.detail));
  player.addEventListener('variantchanged', () => {
    const active = player.getVariantTracks().find(track => track.active);
    if (active) trace(`shaka variant changed to video ${active.videoId}`);
  });
  const fetched = [];  // {stream: video stream id, start: segment start time, url: path}
  player.getNetworkingEngine().registerResponseFilter((type, response, context) => {
    // Media segments only: an init segment's reference has no start time.
    if (!context || context.type !== shaka.net.NetworkingEngine.AdvancedRequestType.MEDIA_SEGMENT ||
        !context.stream || context.stream.type !== 'video' || !context.segment) return;
    fetched.push({stream: String(context.stream.id), start: context.segment.getStartTime(),
                  url: new URL(response.uri, location.href).pathname});
  });
  const ready = player.attach(video).then(() => player.load(src)).catch(error => {
    recordShakaError(error);
    throw new Error(`shaka-player load(): code ${error.code}`);
  });
  const videoTracks = () => {
    const byVideo = new Map();
    for (const track of player.getVariantTracks()) {
      if (track.videoId !== null && !byVideo.has(track.videoId)) byVideo.set(track.videoId, track);
    }
    return [...byVideo.values()];
  };
  return {
    version: shaka.Player.version,
    ready,
    list: () => videoTracks().map(track => ({
      id: String(track.videoId), width: track.width, height: track.height,
      bandwidth: track.videoBandwidth || track.bandwidth, codecs: track.codecs,
      originalId: track.originalVideoId, url: null,
    })),
    url: id => {
      const segment = fetched.find(entry => entry.stream === id);
      return segment ? segment.url : null;
    },
    subtitles: () => {
      const tracks = player.getTextTracks();
      if (tracks.length) {
        player.selectTextTrack(tracks[0]);
        player.setTextTrackVisibility(true);
      }
      return tracks.map(track => ({id: String(track.id), language: track.language,
                                   name: track.label}));
    },
    current: () => {
      const active = player.getVariantTracks().find(track => track.active);
      return active ? String(active.videoId) : null;
    },
    select: id => {
      // The audio playing now, with the video asked for: only the video switches.
      const active = player.getVariantTracks().find(track => track.active);
      const track = player.getVariantTracks().find(candidate =>
          String(candidate.videoId) === id && (!active || candidate.audioId === active.audioId));
      const seen = fetched.length;
      player.selectVariantTrack(track, /* clearBuffer= */ false);
      return new Promise(resolve => {
        const check = () => {
          const first = fetched.slice(seen).find(entry => entry.stream === id);
          if (!first || video.currentTime < first.start) return;
          video.removeEventListener('timeupdate', check);
          resolve();
        };
        video.addEventListener('timeupdate', check);
      });
    },
    stop: () => player.destroy(),
  };
}

// Seeks to `seconds` (a viewer's jump ahead, out of what is buffered) while paused, records
// where the element says it landed and the frame it shows there, then plays to the end. Paused,
// so that the frame shown is the one at the seek's position: playing, headless Chromium
// restarts the clock with the audio and drops the frames it is late for, up to 1.4 s of them
// on this loaded 2-core machine, which would hide where the seek landed.
async function seekAndPlayToTheEnd(seconds) {
  step(`seeking to ${seconds} s`);
  // Frames from a second before the target count (a player landing on the keyframe before it
  // shows that one), so playback must be further back than that.
  if (video.currentTime >= seconds - 1) {
    throw new Error(`playback is at ${video.currentTime} s, too close to the seek target`);
  }
  video.pause();
  trace(`paused; seek to ${seconds}`);
  const seeked = new Promise(resolve =>
      video.addEventListener('seeked', () => resolve(video.currentTime), {once: true}));
  const frame = frameShownAt(seconds - 1);
  video.currentTime = seconds;
  report.seek = {to: seconds, seekedAt: await within(stepSeconds, 'the seek', seeked), frame: null};
  report.seek.frame = await within(stepSeconds, 'a frame after the seek', frame);
  trace(`frame shown after the seek ${JSON.stringify(report.seek.frame)}`);
  step('playing to the end');
  endExpected = true;
  const ended = new Promise(resolve => video.addEventListener('ended', resolve, {once: true}));
  video.play().catch(error => recordError('video element', true, `play(): ${error.message}`));
  await within(stepSeconds, 'playing to the end', ended);
  report.ended = {currentTime: video.currentTime, duration: video.duration};
  trace(`ended at ${video.currentTime.toFixed(3)} of ${video.duration.toFixed(3)}`);
}

let adapter = null;

async function run() {
  const adapters = {hls: hlsAdapter, dash: dashAdapter, shaka: shakaAdapter};
  const makeAdapter = adapters[report.player];
  if (!makeAdapter) throw new Error(`unknown player "${report.player}" (hls, dash or shaka)`);
  if (!video.requestVideoFrameCallback) throw new Error('no requestVideoFrameCallback');
  step('loading the manifest');
  adapter = makeAdapter(report.src);
  report.version = adapter.version;
  await within(stepSeconds, 'loading the manifest', adapter.ready);
  report.renditions = adapter.list();
  report.subtitles = {tracks: adapter.subtitles(), cue: null};
  step(`playing to ${startSeconds} s`);
  video.play().catch(error => recordError('video element', true, `play(): ${error.message}`));
  report.playedTo =
      await within(stepSeconds, `playing to ${startSeconds} s`, playedPast(startSeconds));
  if (report.subtitles.tracks.length) {
    step('waiting for a subtitle cue on screen');
    report.subtitles.cue = await within(stepSeconds, 'a subtitle cue', activeCue());
    trace(`subtitle cue ${JSON.stringify(report.subtitles.cue)}`);
  }

  // The rendition playing now goes last, so that every selection is a real switch.
  const playing = adapter.current();
  const order = [...report.renditions].sort((a, b) => (a.id === playing) - (b.id === playing));
  for (const rendition of order) {
    step(`switching to rendition ${rendition.id} (${rendition.width}x${rendition.height})`);
    trace(`select rendition ${rendition.id}`);
    await within(stepSeconds, `switching to rendition ${rendition.id}`,
                 adapter.select(rendition.id));
    rendition.reachedAt = video.currentTime;
    step(`waiting for a frame of rendition ${rendition.id} ${dwellSeconds} s in`);
    rendition.shown = await within(stepSeconds, `a frame of rendition ${rendition.id}`,
                                   frameShownAt(rendition.reachedAt + dwellSeconds));
    if (adapter.url) rendition.url = adapter.url(rendition.id);
    publish();
  }
  if (seekSeconds !== null) await seekAndPlayToTheEnd(seekSeconds);
  report.done = true;
  step('done');
}

pace().catch(error => recordError('page', true, `pacing: ${error.message}`));
run().catch(error => {
  recordError('page', true, `${error.name}: ${error.message}`);
  step(`stopped: ${error.message}`);
}).finally(() => {
  // What each rendition fetched, also for a run cut short (shaka-player: its first segment).
  if (adapter && adapter.url) {
    for (const rendition of report.renditions) {
      rendition.url = rendition.url || adapter.url(rendition.id);
    }
    publish();
  }
  // Nothing left running: the budget then runs out at once and Chromium dumps the DOM.
  if (adapter) adapter.stop();
  video.pause();
  pacing = false;
});
