'use strict';

// Builds the rating summary block shown on product pages.
function summarize(reviews) {
  const histogram = { 1: 0, 2: 0, 3: 0, 4: 0, 5: 0 };
  let sum = 0;
  for (const r of reviews) {
    histogram[Math.round(r.rating)] += 1;
    sum += r.rating;
  }
  const count = reviews.length;
  const average = count ? sum / count : 0;
  return {
    count,
    average: Number(average.toFixed(2)),
    histogram,
    top: reviews
      .filter((r) => r.body && r.body.length > 40)
      .slice(0, 3)
      .map((r) => ({
        id: String(r._id),
        title: r.title,
        stars: r.rating.toFixed(1),
        author: r.authorDisplayName,
        date: r.createdAt,
      })),
  };
}

module.exports = { summarize };
