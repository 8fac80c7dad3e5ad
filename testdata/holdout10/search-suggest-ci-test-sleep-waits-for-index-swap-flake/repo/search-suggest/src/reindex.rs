use std::sync::Arc;

use tokio::sync::mpsc;

use crate::index::{Index, IndexHandle, Title};

pub struct Reindexer {
    tx: mpsc::Sender<Vec<Title>>,
}

impl Reindexer {
    pub fn spawn(handle: IndexHandle) -> Self {
        let (tx, mut rx) = mpsc::channel::<Vec<Title>>(4);
        tokio::spawn(async move {
            while let Some(titles) = rx.recv().await {
                let built = tokio::task::spawn_blocking(move || Index::build(titles)).await.expect("build panicked");
                handle.swap(Arc::new(built));
            }
        });
        Self { tx }
    }

    pub fn trigger(&self, titles: Vec<Title>) {
        let _ = self.tx.try_send(titles);
    }
}
