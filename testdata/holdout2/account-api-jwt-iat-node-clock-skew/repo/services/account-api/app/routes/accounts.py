from fastapi import APIRouter, Depends

from app.auth import Principal, current_principal
from app.db import AccountRepo, get_repo

router = APIRouter(prefix="/v1/accounts")


@router.get("/me")
async def me(principal: Principal = Depends(current_principal), repo: AccountRepo = Depends(get_repo)):
    account = await repo.by_customer(principal.customer_id)
    return account.public_view()


@router.get("/me/policies")
async def my_policies(principal: Principal = Depends(current_principal), repo: AccountRepo = Depends(get_repo)):
    return [p.summary() for p in await repo.policies(principal.customer_id)]
