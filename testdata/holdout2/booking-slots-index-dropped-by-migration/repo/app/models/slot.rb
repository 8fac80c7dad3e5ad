class Slot < ApplicationRecord
  belongs_to :clinic
  belongs_to :practitioner
  has_one :appointment, dependent: :restrict_with_error

  scope :free, -> { where(booked: false, blocked: false) }

  # Open slots of a clinic in [from, to), earliest first. Backs the
  # "pick a time" page, the busiest endpoint of the patient portal.
  def self.available_for(clinic_id, from:, to:, limit: 200)
    free
      .where(clinic_id: clinic_id, starts_at: from...to)
      .order(:starts_at)
      .limit(limit)
      .to_a
  end

  # One practitioner's calendar at a clinic (practitioner app).
  def self.calendar(practitioner_id, clinic_id, from:, to:)
    where(practitioner_id: practitioner_id, clinic_id: clinic_id, starts_at: from...to)
      .order(:starts_at)
      .to_a
  end

  def ends_at
    starts_at + duration_minutes.minutes
  end
end
