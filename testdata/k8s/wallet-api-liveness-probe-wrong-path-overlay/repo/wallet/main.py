from fastapi import FastAPI

from wallet.api import balances, health, transfers
from wallet.logging import configure_logging

configure_logging()
app = FastAPI(title="wallet-api", version="1.42.0")
app.include_router(health.router)
app.include_router(balances.router)
app.include_router(transfers.router)
