// Package browsercheck opens a node's status page (/bloomcast/status) in
// a real headless Chromium, driven by chromedp over the DevTools
// protocol, and checks what a person would see. It is a module of its
// own so that chromedp never becomes a dependency of bloomcast; it has
// no code besides its test.
package browsercheck
