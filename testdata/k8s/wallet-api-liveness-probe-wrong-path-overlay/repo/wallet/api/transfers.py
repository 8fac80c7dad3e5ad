from fastapi import APIRouter, Depends, Header, HTTPException

from wallet.auth import current_user
from wallet.models import TransferRequest, Transfer
from wallet.services import transfers as svc

router = APIRouter(prefix="/v1/transfers", tags=["transfers"])


@router.post("", response_model=Transfer, status_code=201)
async def create_transfer(req: TransferRequest, user=Depends(current_user),
                          idempotency_key: str | None = Header(default=None, alias="Idempotency-Key")) -> Transfer:
    if idempotency_key:
        existing = await svc.find_by_idempotency_key(user.id, idempotency_key)
        if existing:
            return existing
    if req.amount_minor <= 0:
        raise HTTPException(status_code=422, detail="amount must be positive")
    return await svc.create(user.id, req, idempotency_key=idempotency_key)


@router.get("/{transfer_id}", response_model=Transfer)
async def get_transfer(transfer_id: str, user=Depends(current_user)) -> Transfer:
    t = await svc.get(user.id, transfer_id)
    if t is None:
        raise HTTPException(status_code=404, detail="transfer not found")
    return t
