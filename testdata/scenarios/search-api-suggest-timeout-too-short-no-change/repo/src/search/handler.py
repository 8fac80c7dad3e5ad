import logging
log = logging.getLogger(__name__)

















def search(q):
    res = backend.search(q)
    log.info('len %d', len(q))
    return res
