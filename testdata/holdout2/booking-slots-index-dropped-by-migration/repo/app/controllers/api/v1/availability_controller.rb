module Api
  module V1
    class AvailabilityController < ApplicationController
      # GET /api/v1/clinics/:clinic_id/availability?from=2026-12-09&days=7
      def index
        clinic = Clinic.find(params[:clinic_id])
        from = Date.parse(params.fetch(:from, Date.current.iso8601)).in_time_zone(clinic.time_zone)
        to = from + params.fetch(:days, 7).to_i.clamp(1, 14).days

        slots = Slot.available_for(clinic.id, from: from, to: to)
        hours = Rails.cache.fetch(["clinic-hours", clinic.id, clinic.updated_at.to_i], expires_in: 5.minutes) do
          clinic.opening_hours
        end

        render json: AvailabilitySerializer.new(clinic, slots, hours).as_json
      end
    end
  end
end
