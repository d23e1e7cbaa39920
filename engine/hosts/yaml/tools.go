//go:build tools

// Package tools pins Pulumi's yaml language host, github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml, at v1.25.0.
package tools

import _ "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml"
