INDEX_ALIAS = "products"
REINDEX_BATCH = 2000
SYNONYMS_FILE = "analysis/synonyms_de.txt"
REFRESH_INTERVAL = "30s"
