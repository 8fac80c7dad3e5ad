// Command bot is AutoHeal: `bot serve` runs the Slack bot, `bot investigate`
// runs one investigation, `bot eval` scores scenarios, `bot demo` shows the
// whole flow against simulators, `bot sim` serves a scenario's simulators.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "usage: bot serve|investigate|eval|demo|sim [flags]")
	os.Exit(2)
}
