'use strict';

// Parses ID3 CHAP frames into a chapter list for the player.
function parseChapters(tags) {
  const frames = (tags && tags.chapter) || [];
  return frames
    .map((f) => ({ title: f.tags?.title ?? '', startMs: f.startTimeMs, endMs: f.endTimeMs }))
    .sort((a, b) => a.startMs - b.startMs);
}

module.exports = { parseChapters };
