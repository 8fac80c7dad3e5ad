import asyncpg
from cachetools import TTLCache
from fastapi import Request


class BillingRepository:
    """Read-only access to the billing schema (replica)."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool
        self._cache: TTLCache = TTLCache(maxsize=20_000, ttl=60)

    async def all_invoices(self, account_id: str) -> list[asyncpg.Record]:
        key = f"invoices:{account_id}"
        if (hit := self._cache.get(key)) is not None:
            return hit
        rows = await self._pool.fetch(
            "SELECT id, number, period_start, period_end, amount_cents, currency, status, issued_at"
            " FROM invoices WHERE account_id = $1 ORDER BY issued_at DESC",
            account_id,
        )
        self._cache[key] = rows
        return rows

    async def all_payments(self, account_id: str) -> list[asyncpg.Record]:
        rows = await self._pool.fetch(
            "SELECT id, method, amount_cents, currency, received_at, invoice_id"
            " FROM payments WHERE account_id = $1 ORDER BY received_at DESC",
            account_id,
        )
        return rows


def get_repository(request: Request) -> BillingRepository:
    return request.app.state.repository
