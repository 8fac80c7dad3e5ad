export const flags = {
  rewardsCarousel: process.env.FLAG_REWARDS_CAROUSEL === 'on',
  orderAheadEta: true,
};
