module.exports = {
  images: {
    formats: ['image/avif', 'image/webp'],
    remotePatterns: [{ protocol: 'https', hostname: 'img.hollowpine.com' }],
  },
};
