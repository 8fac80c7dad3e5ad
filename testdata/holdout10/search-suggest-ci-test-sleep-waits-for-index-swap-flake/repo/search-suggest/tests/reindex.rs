use std::time::Duration;

use search_suggest::{index::IndexHandle, reindex::Reindexer, test_support::fixture_titles};

#[tokio::test]
async fn suggest_serves_old_index_during_reindex() {
    let handle = IndexHandle::new(fixture_titles("v1"));
    let reindexer = Reindexer::spawn(handle.clone());
    reindexer.trigger(fixture_titles("v2"));
    assert_eq!(handle.suggest("dune", 3)[0].title, "Dune");
}

#[tokio::test]
async fn suggest_updates_after_reindex() {
    let handle = IndexHandle::new(fixture_titles("v1"));
    let reindexer = Reindexer::spawn(handle.clone());
    reindexer.trigger(fixture_titles("v2"));

    // give the background task time to build and swap the new index
    tokio::time::sleep(Duration::from_millis(50)).await;

    let got = handle.suggest("piranesi", 3);
    assert!(!got.is_empty(), "expected v2 title after reindex, got {:?}", got);
    assert_eq!(got[0].title, "Piranesi");
}
