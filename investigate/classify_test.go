package investigate

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

func TestOverflowAtAConversionIsInputThatDoesNotFit(t *testing.T) {
	const file = "src/PartnerOrders/Shopora/ShoporaOrderMapper.cs"
	c := &candidate{ErrorType: ErrRuntime, Support: []Finding{{Signature: "int-overflow"}}}
	at := func(code string) *evidence {
		return &evidence{findings: []Finding{{Kind: KindSourceAnchor, File: file, Line: 24, Quote: code}}}
	}
	assert.True(t, at("Quantity = checked((uint)line.Quantity),").inputDoesNotFit(c, file, 24))
	assert.True(t, at("let qty: u32 = line.quantity.try_into()?;").inputDoesNotFit(c, file, 24))
	assert.False(t, at("total = checked(price * quantity);").inputDoesNotFit(c, file, 24), "arithmetic, not a conversion")
	other := &candidate{ErrorType: ErrRuntime, Support: []Finding{{Signature: "java-runtime"}}}
	assert.False(t, at("Quantity = checked((uint)line.Quantity),").inputDoesNotFit(other, file, 24))
}

func TestCrashLoopsOverrideTheReportersFlaky(t *testing.T) {
	ev := &evidence{issue: Issue{Text: "place order is flaky since this morning"}, restarts: map[string]int{}}
	c := &candidate{Service: "checkout-api", Support: []Finding{{Quote: "checkout-api-1/checkout-api previous container log: AuditError: rejected", Count: 3}}}
	assert.True(t, ev.crashLoops(c))
	calm := &candidate{Service: "checkout-api", Support: []Finding{{Quote: "AuditError: rejected", Count: 30}}}
	assert.False(t, ev.crashLoops(calm))
	ev.restarts["checkout-api"] = 4
	assert.True(t, ev.crashLoops(calm), "restarts counted by the metrics")
}

func TestAsyncCallerChange(t *testing.T) {
	onset := time.Date(2026, 5, 19, 6, 9, 0, 0, time.UTC)
	change := Finding{Kind: KindChangeCorrelation, File: "services/checkout-api/src/routes/orders.ts", Time: onset.Add(-12 * time.Hour),
		Quote: "260a325 checkout: audit promotion redemptions",
		Attrs: map[string]string{"added": "8: for (const promo of order.appliedPromotions) {\n9:   audit.record({ type: 'promotion.redeemed', code: promo.code });\n10: }"}}
	anchor := &Frame{File: "/app/src/clients/audit.ts", Line: 26, Function: "AuditClient.record"}
	crash := Finding{Frames: []Frame{*anchor}, Quote: "AuditError: audit-log rejected event", Attrs: map[string]string{
		"detail": "AuditError: audit-log rejected | at AuditClient.record (/app/src/clients/audit.ts:26:13) | at process.processTicksAndRejections (node:internal/process/task_queues:95:5)"}}
	ev := &evidence{onset: onset, findings: []Finding{change}}

	l, ok := ev.asyncCallerChange(&candidate{Support: []Finding{crash}}, anchor)
	require.True(t, ok)
	assert.Equal(t, 9, l.line)
	assert.Equal(t, change.File, l.change.File)

	sync := crash
	sync.Attrs = map[string]string{"detail": "AuditError | at AuditClient.record (/app/src/clients/audit.ts:26:13) | at placeOrder (/app/src/routes/orders.ts:9:7)"}
	_, ok = ev.asyncCallerChange(&candidate{Support: []Finding{sync}}, anchor)
	assert.False(t, ok, "a stack that still has its caller needs no guess")

	awaited := change
	awaited.Attrs = map[string]string{"added": "9:   await audit.record({ type: 'promotion.redeemed' });"}
	_, ok = (&evidence{onset: onset, findings: []Finding{awaited}}).asyncCallerChange(&candidate{Support: []Finding{crash}}, anchor)
	assert.False(t, ok, "an awaited call hands its failure to the caller")
}

func TestWindowLinesOfNothingIsEmpty(t *testing.T) {
	assert.Nil(t, windowLines(""))
	assert.Len(t, windowLines("> 9  a()\n  10  b()\n"), 2)
}

func TestPortRaceNeedsIntermittentFailures(t *testing.T) {
	c := &candidate{Service: "geo-tiles", ErrorType: ErrConfig, Signature: "port-in-use", Support: []Finding{{Signature: "port-in-use", Count: 8}}}
	assert.True(t, (&evidence{issue: Issue{Text: "one of the tests fails every few runs and passes on re-run"}}).portRace(c))
	assert.False(t, (&evidence{issue: Issue{Text: "the api does not start since the deploy"}}).portRace(c), "a port always taken is configuration")
}

func TestInputDefectsAreBadDataWhateverChanged(t *testing.T) {
	const file = "app/Imports/SupplierPriceImporter.php"
	onset := time.Date(2026, 5, 6, 7, 5, 0, 0, time.UTC)
	ev := &evidence{onset: onset, findings: []Finding{{Kind: KindChangeCorrelation, File: file, Time: onset.Add(-16 * time.Hour),
		Attrs: map[string]string{"added": "52:             sku: trim($row['sku']),"}}}}
	bom := &candidate{Service: "supplier-price-import", ErrorType: ErrDataValidation, Signature: "byte-order-mark",
		Support: []Finding{{Signature: "byte-order-mark", Quote: `"header":["` + "\ufeff" + `sku","ean"]`}, {Signature: "php-undefined", Quote: `Undefined array key "sku"`}}}
	assert.Equal(t, BucketBadData, ev.classify(&hypothesis{c: bom}, file, 52))
	plain := &candidate{Service: "supplier-price-import", ErrorType: ErrDataValidation, Signature: "schema-validation", Support: []Finding{{Signature: "schema-validation"}}}
	assert.Equal(t, BucketBadData, ev.classify(&hypothesis{c: plain}, file, 40), "other validation failures keep their rules")
}

func TestReadBeforeCommit(t *testing.T) {
	nf := &candidate{Service: "inspect-worker", ErrorType: ErrDataValidation, Signature: "record-not-found",
		Support: []Finding{{Signature: "record-not-found", Quote: "ActiveRecord::RecordNotFound: Couldn't find InspectionReport with 'id'=794630", Count: 5}}}
	ev := &evidence{issue: Issue{Text: "RecordNotFound from InspectionReportJob, 63 in 3 days, and they all succeed on retry"},
		calls: map[string]map[string]int{"inspect-web": {"inspect-worker": 5}, "inspect-worker": {"postgres": 9}}}
	assert.True(t, ev.readBeforeCommit(nf))
	assert.Equal(t, "inspection_report.rb", missingRecordFile(nf))
	assert.Equal(t, "inspect-web", ev.dominantCallerOf("inspect-worker"), "the writer hands the record to the worker")

	ev.findings = []Finding{{Kind: KindSourceAnchor, File: "app/models/inspection_report.rb", Line: 1, Attrs: map[string]string{
		"window": "> 1  class InspectionReport < ApplicationRecord\n  2    belongs_to :inspection\n  9    after_save :enqueue_render, if: :saved_change_to_status?\n 17    def enqueue_render\n"}}}
	f, n, ok := ev.enqueueBeforeCommit(nf)
	require.True(t, ok)
	assert.Equal(t, 9, n)
	assert.Equal(t, "app/models/inspection_report.rb", f.File)

	ev.findings[0].Attrs["window"] = "  9    after_create_commit :enqueue_render\n"
	_, _, ok = ev.enqueueBeforeCommit(nf)
	assert.False(t, ok, "after_commit hooks run once the record is visible")

	sustained := &evidence{issue: Issue{Text: "every report job fails since the deploy"}}
	assert.False(t, sustained.readBeforeCommit(nf), "records that are never there are missing data, not a race")
}

func TestDeepLiveness(t *testing.T) {
	probe := Finding{Kind: KindK8sEvent, Signature: "k8s-probe", Quote: "rx-api-1 Unhealthy (87×): Readiness probe failed: HTTP probe failed with statuscode: 503",
		Attrs: map[string]string{"probe": "readiness", "probes": "liveness,readiness", "liveness_kills": "6"}}
	slowDB := Finding{Kind: KindLogPattern, ErrorType: ErrTimeout, Quote: "Npgsql command timeout after 30s, retrying (1/3)"}
	assert.True(t, (&candidate{Support: []Finding{probe, slowDB}}).deepLiveness())
	assert.False(t, (&candidate{Support: []Finding{probe}}).deepLiveness(), "restarts without a slow dependency say nothing about the probe's depth")
	refused := probe
	refused.Quote = "Liveness probe failed: Get \"http://10.1.2.3:8081/healthz\": dial tcp 10.1.2.3:8081: connect: connection refused"
	assert.False(t, (&candidate{Support: []Finding{refused, slowDB}}).deepLiveness(), "a refused probe is a port problem")
}

func TestLockLostLocatesTheLease(t *testing.T) {
	window := []string{"  32              try {", "  33                  if (!lock.tryLock(0, 30, TimeUnit.SECONDS)) {", "> 39                      lock.unlock();"}
	assert.Equal(t, 33, windowMatch(window, leaseAcquireRE))
	assert.Zero(t, windowMatch([]string{"  33      if (!lock.tryLock()) {"}, leaseAcquireRE), "a watchdog-renewed lock has no fixed lease")
}
