/** @type {import('next').NextConfig} */
const nextConfig = {
  output: "standalone",
  experimental: {
    instrumentationHook: true,
  },
  images: {
    formats: ["image/avif", "image/webp"],
    deviceSizes: [360, 640, 828, 1080, 1280, 1920],
    minimumCacheTTL: 86400,
    remotePatterns: [{ protocol: "https", hostname: "images.ctfassets.net" }, { protocol: "https", hostname: "media.lumio.de" }],
  },
};

module.exports = nextConfig;
