const fs = require("node:fs/promises");
const path = require("node:path");
const os = require("node:os");
const sharp = require("sharp");
const { download } = require("./storage");

// Originals are spooled to TMPDIR first: sharp needs a seekable file for HEIC and multi-page TIFF.
async function resizeJob(job) {
  const src = path.join(os.tmpdir(), `${job.id}-src`);
  await download(job.objectKey, src);
  try {
    const outputs = [];
    for (const w of job.widths) {
      const out = path.join(os.tmpdir(), `${job.id}-${w}.webp`);
      await sharp(src, { limitInputPixels: 268402689 }).rotate().resize({ width: w }).webp({ quality: 82 }).toFile(out);
      outputs.push(out);
    }
    return outputs;
  } finally {
    await fs.rm(src, { force: true });
  }
}

module.exports = { resizeJob };
