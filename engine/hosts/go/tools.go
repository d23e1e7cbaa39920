//go:build tools

// Package tools pins Pulumi's go language host, github.com/pulumi/pulumi/sdk/v3/go/pulumi-language-go, at v3.60.0.
package tools

import _ "github.com/pulumi/pulumi/sdk/v3/go/pulumi-language-go"
