from sqlalchemy import DateTime, ForeignKey, Integer, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class Booking(Base):
    __tablename__ = "bookings"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    member_id: Mapped[int] = mapped_column(ForeignKey("members.id"))
    desk_id: Mapped[int] = mapped_column(ForeignKey("desks.id"))
    starts_at: Mapped["datetime"] = mapped_column(DateTime)  # stored as UTC, without time zone
    ends_at: Mapped["datetime"] = mapped_column(DateTime)
    created_at: Mapped["datetime"] = mapped_column(DateTime)
    status: Mapped[str] = mapped_column(String(16), default="held")
