// Seasonal synonyms, reloaded by catalog-indexer into the products-v7 analyzer.
export const synonyms = [
  "sofa, couch, settee",
  "duvet, comforter, quilt",
  "rug, carpet",
  "black friday, bf, deals",
  "advent calendar, christmas calendar",
];
