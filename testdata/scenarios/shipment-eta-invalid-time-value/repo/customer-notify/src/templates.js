module.exports = {
  outForDelivery: (s) => `Your parcel ${s.trackingNo} is out for delivery today.`,
  delayed: (s) => `Your parcel ${s.trackingNo} is delayed. New estimate: ${s.eta}.`,
};
