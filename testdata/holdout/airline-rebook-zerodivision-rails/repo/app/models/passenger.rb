# frozen_string_literal: true

class Passenger < ApplicationRecord
  belongs_to :order
  has_many :tickets, dependent: :destroy

  enum :pax_type, { adult: "ADT", child: "CHD", lap_infant: "INF" }
  # ticket_status moves issued -> ticketed; a voluntary change parks it at
  # exchange_pending until the reissue is confirmed or rolled back.
  enum :ticket_status, { pending: "pending", ticketed: "ticketed", exchange_pending: "exchange_pending", void: "void" }

  validates :given_name, :surname, presence: true

  def chargeable?
    !lap_infant? && !void?
  end

  def display_name
    "#{surname.upcase}/#{given_name.upcase}"
  end
end
