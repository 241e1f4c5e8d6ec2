//go:build tools

// Package tools pins the OpenTofu CLI so that `go mod tidy` keeps its dependencies.
package tools

import _ "github.com/opentofu/opentofu/cmd/tofu"
