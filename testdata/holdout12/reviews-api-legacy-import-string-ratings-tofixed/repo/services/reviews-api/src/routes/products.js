'use strict';
const { summarize } = require('../summary');

module.exports = async function (fastify) {
  fastify.get('/v1/products/:sku/reviews/summary', async (req, reply) => {
    const reviews = await fastify.mongo.db
      .collection('reviews')
      .find({ sku: req.params.sku, status: 'published' })
      .sort({ helpfulVotes: -1, createdAt: -1 })
      .limit(500)
      .toArray();
    return summarize(reviews);
  });
};
