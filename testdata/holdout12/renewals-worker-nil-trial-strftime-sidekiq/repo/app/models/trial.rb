# frozen_string_literal: true

# Trials moved out of subscriptions.trial_ends_at (see 20261208_create_trials).
# Only subscriptions that started with a trial have one.
class Trial < ApplicationRecord
  belongs_to :subscription
end
