const { S3Client, GetObjectCommand, PutObjectCommand } = require("@aws-sdk/client-s3");
const sharp = require("sharp");

const s3 = new S3Client({});
const SIZES = [{ name: "sm", width: 320 }, { name: "md", width: 800 }, { name: "lg", width: 1600 }];

exports.resize = async (event) => {
  const failures = [];
  for (const record of event.Records) {
    const { listingId, key } = JSON.parse(record.body);
    try {
      const obj = await s3.send(new GetObjectCommand({ Bucket: process.env.ORIGIN_BUCKET, Key: key }));
      const input = Buffer.from(await obj.Body.transformToByteArray());
      for (const size of SIZES) {
        const out = await sharp(input).rotate().resize({ width: size.width, withoutEnlargement: true }).webp({ quality: 78 }).toBuffer();
        await s3.send(new PutObjectCommand({ Bucket: process.env.THUMBS_BUCKET, Key: `${listingId}/${size.name}/${key.split("/").pop()}.webp`, Body: out, ContentType: "image/webp" }));
      }
      console.log(JSON.stringify({ level: "info", msg: "thumbnails written", listingId, key }));
    } catch (err) {
      console.error(JSON.stringify({ level: "error", msg: "resize failed", listingId, key, err: err.message }));
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
};
