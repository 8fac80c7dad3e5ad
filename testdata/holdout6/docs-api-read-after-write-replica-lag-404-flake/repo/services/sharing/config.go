package sharing

const LinkTTLDays = 30
