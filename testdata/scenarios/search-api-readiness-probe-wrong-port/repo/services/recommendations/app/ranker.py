import logging

log = logging.getLogger(__name__)

MIN_SCORE = 0.15


def rank(items, scores):
    kept = [(i, s) for i, s in zip(items, scores) if s >= MIN_SCORE]
    if len(kept) < 3:
        log.warning("few candidates above MIN_SCORE=%s (%d), padding with popular items", MIN_SCORE, len(kept))
    return [i for i, _ in sorted(kept, key=lambda x: -x[1])]
