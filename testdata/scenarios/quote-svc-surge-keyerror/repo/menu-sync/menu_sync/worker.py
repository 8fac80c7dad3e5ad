import logging

log = logging.getLogger("menu_sync")

BATCH_SIZE = 200


def sync(partner, store):
    items = partner.fetch_menu()
    for i in range(0, len(items), BATCH_SIZE):
        store.upsert(items[i:i + BATCH_SIZE])
    log.info("menu synced partner=%s items=%d", partner.id, len(items))
