"""Relevance scoring on top of the Elasticsearch BM25 score."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Weights:
    text: float = 1.0
    popularity: float = 0.35
    margin: float = 0.1
    in_stock: float = 1.4


DEFAULT = Weights()


def function_score(query: dict, weights: Weights = DEFAULT) -> dict:
    return {
        "function_score": {
            "query": query,
            "functions": [
                {"field_value_factor": {"field": "popularity_30d", "modifier": "log1p", "factor": weights.popularity}},
                {"field_value_factor": {"field": "margin_band", "missing": 1, "factor": weights.margin}},
                # Items that can ship today rank above back-ordered ones (SEARCH-141).
                {"filter": {"range": {"stock_available": {"gt": 0}}}, "weight": weights.in_stock},
            ],
            "score_mode": "sum",
            "boost_mode": "multiply",
        }
    }
