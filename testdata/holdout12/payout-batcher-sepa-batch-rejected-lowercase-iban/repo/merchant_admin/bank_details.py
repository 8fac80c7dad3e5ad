from .models import MerchantBankAccount


def update_bank_details(merchant_id, holder, iban, bic, actor):
    """Support-tool endpoint. Verification happens at the bank (penny test)."""
    acct = MerchantBankAccount.objects.get(merchant_id=merchant_id)
    acct.account_holder = holder
    acct.iban = iban
    acct.bic = bic
    acct.updated_by = actor
    acct.save()
    return acct
