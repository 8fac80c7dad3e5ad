package allocate

import (
	"errors"

	allocv1 "github.com/northpeak/fulfilment/gen/go/alloc/v1"
)

// maxParcels bounds how many warehouses may ship parts of one order.
const maxParcels = 3

var (
	ErrInsufficientStock = errors.New("insufficient stock")
	ErrTooManyParcels    = errors.New("too many parcels")
)

// ShipmentPlan is what one warehouse ships for an order.
type ShipmentPlan struct {
	WarehouseID string
	Carrier     string
	Lines       map[string]int32 // sku -> quantity
}

func newPlan(warehouseID, carrier string) *ShipmentPlan {
	return &ShipmentPlan{WarehouseID: warehouseID, Carrier: carrier, Lines: make(map[string]int32)}
}

// singleSite returns the best-ranked site that can ship the whole order.
func singleSite(order *allocv1.Order, stock StockView) (Site, bool) {
	country := order.GetShipTo().GetCountry()
	for _, site := range stock.Sites(country) {
		ok := true
		for _, line := range order.GetLines() {
			if stock.Available(site.WarehouseID, line.GetSku()) < line.GetQuantity() {
				ok = false
				break
			}
		}
		if ok {
			return site, true
		}
	}
	return Site{}, false
}

func planFor(site Site, order *allocv1.Order) *ShipmentPlan {
	p := newPlan(site.WarehouseID, site.DefaultCarrier)
	for _, line := range order.GetLines() {
		p.Lines[line.GetSku()] += line.GetQuantity()
	}
	return p
}
