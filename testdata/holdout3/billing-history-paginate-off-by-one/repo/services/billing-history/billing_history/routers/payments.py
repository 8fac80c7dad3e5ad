from fastapi import APIRouter, Depends, Query

from billing_history.auth import AccountScope, require_account
from billing_history.pagination import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, paginate
from billing_history.repository import BillingRepository, get_repository
from billing_history.schemas import PaymentOut, PaymentPage

router = APIRouter(prefix="/v1/accounts/{account_id}", tags=["payments"])


@router.get("/payments", response_model=PaymentPage)
async def list_payments(
    account_id: str,
    page: int = Query(1, ge=1),
    page_size: int = Query(DEFAULT_PAGE_SIZE, ge=1, le=MAX_PAGE_SIZE),
    scope: AccountScope = Depends(require_account),
    repo: BillingRepository = Depends(get_repository),
) -> PaymentPage:
    """Payments received for one account, newest first."""
    rows = await repo.all_payments(account_id)
    result = paginate(rows, page, page_size)
    return PaymentPage(
        items=[PaymentOut.from_row(r) for r in result.items],
        page=result.page,
        page_size=result.page_size,
        total_items=result.total_items,
        total_pages=result.total_pages,
    )
