"""Page-number pagination shared by the list endpoints (invoices, payments)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, Sequence, TypeVar

T = TypeVar("T")

DEFAULT_PAGE_SIZE = 12
MAX_PAGE_SIZE = 100


@dataclass(frozen=True)
class Page(Generic[T]):
    items: list[T]
    page: int  # 1-based, as sent by the portal and the apps
    page_size: int
    total_items: int
    total_pages: int


def paginate(rows: Sequence[T], page: int, page_size: int = DEFAULT_PAGE_SIZE) -> Page[T]:
    """Split ``rows`` into pages of ``page_size`` and return the requested one.

    ``page`` is 1-based: the customer portal and the mobile apps ask for page=1
    first. An account without rows still has one (empty) page.
    """
    if page < 1:
        raise ValueError("page must be >= 1")
    page_size = max(1, min(page_size, MAX_PAGE_SIZE))
    pages = [list(rows[i : i + page_size]) for i in range(0, len(rows), page_size)] or [[]]
    if page > len(pages):
        return Page(items=[], page=page, page_size=page_size, total_items=len(rows), total_pages=len(pages))
    return Page(
        items=pages[page],
        page=page,
        page_size=page_size,
        total_items=len(rows),
        total_pages=len(pages),
    )
