package live

import "time"

// PollInterval is advertised to apps in the Cache-Control header of live score responses.
const PollInterval = 5 * time.Second
