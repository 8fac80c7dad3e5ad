from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field

router = APIRouter()


class StoreUpdate(BaseModel):
    name: str | None = None
    latitude: float | None = None
    longitude: float | None = None
    opening_hours: dict | None = Field(default=None, description="ISO weekday -> [open, close]")


@router.patch("/stores/{store_id}")
async def update_store(store_id: int, body: StoreUpdate, db=Depends(get_db), user=Depends(current_user)):
    changes = body.model_dump(exclude_none=True)
    await db.execute(update_sql(changes), {**changes, "id": store_id})
    log.info("store updated", extra={"store_id": store_id, "fields": sorted(changes), "by": user.email})
    return {"ok": True}
