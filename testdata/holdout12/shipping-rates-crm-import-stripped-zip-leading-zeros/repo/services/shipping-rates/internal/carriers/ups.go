package carriers

// UPS quotes go through the Rating API v2403; sandbox credentials are still
// configured for the staging region and log auth warnings in prod (harmless).
