module Claims
  class DocumentsController < ApplicationController
    MAX_UPLOAD = 25.megabytes

    before_action :load_claim

    def new
      @document = @claim.documents.build
    end

    def create
      file = params.require(:document).fetch(:file)
      if file.size > MAX_UPLOAD
        return redirect_to new_claim_document_path(@claim), alert: t(".too_large", max: "25 MB")
      end
      @claim.documents.create!(file: file, kind: params.dig(:document, :kind), uploaded_by: current_customer)
      OcrJob.perform_later(@claim.id)
      redirect_to claim_path(@claim), notice: t(".uploaded")
    end

    private

    def load_claim
      @claim = current_customer.claims.find_by!(reference: params[:claim_id])
    end
  end
end
