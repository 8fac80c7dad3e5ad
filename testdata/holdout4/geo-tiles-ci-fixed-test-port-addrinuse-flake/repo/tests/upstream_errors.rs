mod common;

use wiremock::{matchers::any, Mock, MockServer, ResponseTemplate};

#[tokio::test]
async fn maps_upstream_503_to_502() {
    let upstream = MockServer::start().await;
    Mock::given(any()).respond_with(ResponseTemplate::new(503)).mount(&upstream).await;
    let app = common::spawn_app_with_upstream(&upstream).await;
    let res = app.client.get(app.url("/tiles/5/16/10.pbf")).send().await.unwrap();
    assert_eq!(res.status(), 502);
}

#[tokio::test]
async fn rejects_out_of_range_zoom() {
    let app = common::spawn_app().await;
    let res = app.client.get(app.url("/tiles/23/1/1.pbf")).send().await.unwrap();
    assert_eq!(res.status(), 400);
}
