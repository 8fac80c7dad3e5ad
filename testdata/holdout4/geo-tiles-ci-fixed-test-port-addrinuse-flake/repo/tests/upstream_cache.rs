mod common;

use std::time::Duration;

use wiremock::{matchers::path_regex, Mock, MockServer, ResponseTemplate};

#[tokio::test]
async fn serves_stale_tile_when_upstream_times_out() {
    let upstream = MockServer::start().await;
    Mock::given(path_regex(r"^/tiles/\d+/\d+/\d+\.pbf$"))
        .respond_with(ResponseTemplate::new(200).set_delay(Duration::from_secs(3)))
        .mount(&upstream)
        .await;
    let app = common::spawn_app_with_upstream(&upstream).await;
    app.client.get(app.url("/warm/12/2143/1362.pbf")).send().await.unwrap();
    let res = app.client.get(app.url("/tiles/12/2143/1362.pbf")).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["x-tile-cache"], "stale");
}

#[tokio::test]
async fn caches_tiles_per_zoom() {
    let app = common::spawn_app().await;
    let res = app.client.get(app.url("/tiles/3/4/2.pbf")).send().await.unwrap();
    assert_eq!(res.headers()["x-tile-cache"], "miss");
}
