//! Shared helpers for the integration tests.
#![allow(dead_code)]

use std::net::SocketAddr;

use geo_tiles::{app, config::Config};
use tokio::net::TcpListener;
use wiremock::MockServer;

/// Port the tile server listens on when a test talks to a mock upstream: the
/// mock's callback templates (tests/fixtures/upstream/*.json) refer to it.
pub const APP_PORT: u16 = 38080;

pub struct TestApp {
    pub addr: SocketAddr,
    pub client: reqwest::Client,
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }
}

/// Starts the tile server on an ephemeral port with the in-memory upstream.
pub async fn spawn_app() -> TestApp {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    serve(listener, Config::for_tests()).await
}

/// Starts the tile server in front of `upstream` (a wiremock server).
pub async fn spawn_app_with_upstream(upstream: &MockServer) -> TestApp {
    let mut cfg = Config::for_tests();
    cfg.upstream_url = upstream.uri().parse().unwrap();
    cfg.public_url = format!("http://127.0.0.1:{APP_PORT}").parse().unwrap();
    let listener = TcpListener::bind(("127.0.0.1", APP_PORT)).await.unwrap();
    serve(listener, cfg).await
}

async fn serve(listener: TcpListener, cfg: Config) -> TestApp {
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app(cfg)).await.unwrap() });
    TestApp { addr, client: reqwest::Client::new() }
}
