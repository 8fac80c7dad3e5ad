package investigate

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCheckThenInsertRace(t *testing.T) {
	const file = "app/services/billing/stripe_invoice_sync.rb"
	anchor := func(code string) *evidence {
		return &evidence{findings: []Finding{{Kind: KindSourceAnchor, File: file, Line: 16, Quote: code}}}
	}
	unique := &candidate{ErrorType: ErrDataValidation, Support: []Finding{{Quote: `ActiveRecord::RecordNotUnique (PG::UniqueViolation: ERROR: duplicate key value violates unique constraint "index_invoices_on_stripe_invoice_id"`}}}
	notNull := &candidate{ErrorType: ErrDataValidation, Support: []Finding{{Quote: `PG::NotNullViolation: ERROR: null value in column "amount" violates not-null constraint`}}}

	findOrCreate := anchor("invoice = account.invoices.find_or_create_by!(stripe_invoice_id: @data.id) do |inv|")
	assert.True(t, findOrCreate.checkThenInsertRace(unique, file, 16))
	assert.True(t, findOrCreate.checkThenInsertRace(unique, file, 18), "the frame may point a line or two below the call")
	assert.False(t, findOrCreate.checkThenInsertRace(notNull, file, 16), "a missing value is bad input, not a race")
	assert.False(t, findOrCreate.checkThenInsertRace(unique, "app/models/invoice.rb", 16), "the anchor must be the find-or-create")
	assert.False(t, anchor("Invoice.create!(stripe_invoice_id: id)").checkThenInsertRace(unique, file, 16),
		"a plain insert of an existing key is a duplicate in the input")
	assert.True(t, anchor("obj, created = Subscription.objects.get_or_create(external_id=event.id)").checkThenInsertRace(
		&candidate{Support: []Finding{{Quote: "django.db.utils.IntegrityError: duplicate key value violates unique constraint"}}}, file, 16))
}

func TestAffectedRecordsCarryDigits(t *testing.T) {
	c := &candidate{Support: []Finding{
		{Quote: `ERROR: duplicate key value violates unique constraint "index_invoices_on_stripe_invoice_id"`},
		{Quote: `failed to settle order_id=ORD-88121 for account 4471`},
	}}
	assert.Equal(t, []string{"ORD-88121", "4471"}, affectedRecords(c))
}

func TestSaysIntermittent(t *testing.T) {
	for text, want := range map[string]bool{
		"webhooks failed with 500 over the weekend, they seem to go through on retry": true,
		"the nightly job is red again":                                 true,
		"checkout randomly fails":                                      true,
		"it works after a retry, most of the time":                     true,
		"ad service is throwing errors since 10am":                     false,
		"every request to /cart has failed since the deploy, retrying": false,
	} {
		ev := &evidence{issue: Issue{Text: text}}
		assert.Equal(t, want, ev.saysIntermittent(), text)
	}
}
