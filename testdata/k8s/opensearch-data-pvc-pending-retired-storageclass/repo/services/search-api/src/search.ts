import { Client } from "@opensearch-project/opensearch";
import { logger } from "./logger";

const client = new Client({ node: process.env.OPENSEARCH_URL ?? "http://catalog-search-data:9200" });
const SLOW_MS = Number(process.env.SLOW_QUERY_MS ?? "800");

export async function searchProducts(q: string, filters: Record<string, string[]>, page = 0) {
  const started = Date.now();
  const res = await client.search({
    index: "products-v7",
    body: {
      from: page * 48,
      size: 48,
      query: {
        bool: {
          must: [{ multi_match: { query: q, fields: ["title^3", "brand^2", "description"], fuzziness: "AUTO" } }],
          filter: Object.entries(filters).map(([field, values]) => ({ terms: { [field]: values } })),
        },
      },
      aggs: { brand: { terms: { field: "brand.keyword", size: 30 } }, colour: { terms: { field: "colour", size: 20 } } },
    },
  });
  const took = Date.now() - started;
  if (took > SLOW_MS) {
    logger.warn({ q, took, shards: res.body._shards }, "slow search");
  }
  return res.body;
}
