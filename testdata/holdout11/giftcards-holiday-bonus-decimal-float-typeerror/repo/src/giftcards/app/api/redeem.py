from decimal import Decimal

from fastapi import APIRouter, Depends, HTTPException
from pydantic import BaseModel, Field

from app.db import Database, get_db
from app.errors import CardExpired, CardFrozen, InsufficientBalance
from app.redeem import compute_redemption

router = APIRouter(prefix="/v1/cards")


class RedeemRequest(BaseModel):
    order_id: str
    amount: Decimal = Field(gt=0, max_digits=12, decimal_places=2)
    currency: str = "USD"


class RedeemResponse(BaseModel):
    redemption_id: str
    charged: Decimal
    bonus: Decimal
    remaining_balance: Decimal


@router.post("/{code}/redeem", response_model=RedeemResponse)
async def redeem_card(code: str, body: RedeemRequest, db: Database = Depends(get_db)) -> RedeemResponse:
    async with db.transaction() as tx:
        card = await tx.lock_card(code)
        if card is None:
            raise HTTPException(status_code=404, detail="unknown card")
        if card.currency != body.currency:
            raise HTTPException(status_code=422, detail="currency mismatch")
        try:
            result = compute_redemption(card, body.amount)
        except (CardFrozen, CardExpired) as exc:
            raise HTTPException(status_code=409, detail=str(exc)) from exc
        except InsufficientBalance as exc:
            raise HTTPException(status_code=402, detail=str(exc)) from exc
        redemption_id = await tx.insert_redemption(body.order_id, result)
        await tx.set_balance(code, result.remaining_balance)
    return RedeemResponse(
        redemption_id=redemption_id,
        charged=result.charged_to_card,
        bonus=result.bonus_applied,
        remaining_balance=result.remaining_balance,
    )
