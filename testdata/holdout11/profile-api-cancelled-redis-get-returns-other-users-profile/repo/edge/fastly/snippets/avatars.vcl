# Avatars are public and immutable per URL; cache them at the edge for an hour.
if (req.url.path ~ "^/avatars/") {
  set beresp.ttl = 1h;
  set beresp.http.Cache-Control = "public, max-age=3600";
}
