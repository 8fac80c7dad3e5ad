import logging

import asyncpg
from fastapi import FastAPI
from opentelemetry.instrumentation.asyncpg import AsyncPGInstrumentor
from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor
from opentelemetry.instrumentation.logging import LoggingInstrumentor

from billing_history.repository import BillingRepository
from billing_history.routers import invoices, payments
from billing_history.settings import settings

LoggingInstrumentor().instrument(set_logging_format=True, log_level=logging.INFO)
AsyncPGInstrumentor().instrument()

app = FastAPI(title="billing-history", version=settings.version)
app.include_router(invoices.router)
app.include_router(payments.router)


@app.on_event("startup")
async def startup() -> None:
    pool = await asyncpg.create_pool(settings.replica_dsn, min_size=2, max_size=10)
    app.state.repository = BillingRepository(pool)


@app.get("/healthz")
async def healthz() -> dict:
    return {"status": "ok"}


FastAPIInstrumentor.instrument_app(app, excluded_urls="healthz")
