//go:build tools

// Package tools pins the provider so that `go mod tidy` keeps its dependencies.
package tools

import _ "github.com/hashicorp/terraform-provider-kubernetes"
