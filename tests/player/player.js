// The player test's page: plays an HLS master (hls.js) or a DASH MPD (dash.js) as a viewer
// would, then switches to every video rendition the player lists, and writes what it saw into
// <pre id="result"> as JSON, rewritten at every step so that a run cut short still tells how far
// it got. tests/player/player_test.py reads it from `chromium --dump-dom` and judges it; this
// page only observes.
//
// Query: ?player=hls|dash&src=URL&start=S&dwell=S&buffer=S&step=S
//   start: play this far before the first switch; dwell: how far into a rendition the frame
//   whose size is read lies; buffer: the players' forward buffer, short so that a switch
//   reaches the screen within a segment or two; step: the most any one step may take.
'use strict';

const params = new URLSearchParams(location.search);
const video = document.getElementById('video');
const startSeconds = Number(params.get('start') || 2);
const dwellSeconds = Number(params.get('dwell') || 0.5);
const bufferSeconds = Number(params.get('buffer') || 4);
const stepSeconds = Number(params.get('step') || 120);
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
video.addEventListener('ended', () => {
  if (!report.done) recordError('page', true, `playback ended during step "${report.step}"`);
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

let adapter = null;

async function run() {
  const adapters = {hls: hlsAdapter, dash: dashAdapter};
  const makeAdapter = adapters[report.player];
  if (!makeAdapter) throw new Error(`unknown player "${report.player}" (hls or dash)`);
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
    publish();
  }
  report.done = true;
  step('done');
}

pace().catch(error => recordError('page', true, `pacing: ${error.message}`));
run().catch(error => {
  recordError('page', true, `${error.name}: ${error.message}`);
  step(`stopped: ${error.message}`);
}).finally(() => {
  // Nothing left running: the budget then runs out at once and Chromium dumps the DOM.
  if (adapter) adapter.stop();
  video.pause();
  pacing = false;
});
