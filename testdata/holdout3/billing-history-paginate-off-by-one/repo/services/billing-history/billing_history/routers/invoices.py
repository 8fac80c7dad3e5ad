from fastapi import APIRouter, Depends, Query
from opentelemetry import trace

from billing_history.auth import AccountScope, require_account
from billing_history.pagination import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, paginate
from billing_history.repository import BillingRepository, get_repository
from billing_history.schemas import InvoiceOut, InvoicePage

router = APIRouter(prefix="/v1/accounts/{account_id}", tags=["invoices"])


@router.get("/invoices", response_model=InvoicePage)
async def list_invoices(
    account_id: str,
    page: int = Query(1, ge=1),
    page_size: int = Query(DEFAULT_PAGE_SIZE, ge=1, le=MAX_PAGE_SIZE),
    scope: AccountScope = Depends(require_account),
    repo: BillingRepository = Depends(get_repository),
) -> InvoicePage:
    """Invoices of one account, newest first, for the billing history page."""
    span = trace.get_current_span()
    span.set_attribute("app.account_id", account_id)
    span.set_attribute("app.page", page)
    rows = await repo.all_invoices(account_id)  # newest first, cached per account for 60 s
    result = paginate(rows, page, page_size)
    return InvoicePage(
        items=[InvoiceOut.from_row(r) for r in result.items],
        page=result.page,
        page_size=result.page_size,
        total_items=result.total_items,
        total_pages=result.total_pages,
    )
