//go:build tools

// Package tools pins Pulumi's python language host, github.com/pulumi/pulumi/sdk/v3/python/cmd/pulumi-language-python, at v3.75.0.
package tools

import _ "github.com/pulumi/pulumi/sdk/v3/python/cmd/pulumi-language-python"
