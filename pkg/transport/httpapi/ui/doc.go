// Package ui holds the memory explorer's files (index.html, ES modules,
// style.css), which package httpapi embeds and serves at /ui, and the
// browser tests that drive the page in headless Chromium against a real
// memoryd process.
package ui
