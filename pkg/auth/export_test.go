package auth

import "github.com/golang-jwt/jwt/v5"

// SignForTest signs claims as Mint does for org under k (HS256, the org's
// derived key, k's kid), so that tests can make tokens whose claims Mint
// would refuse to write.
func SignForTest(k SigningKey, org string, claims jwt.MapClaims) (string, error) {
	key, err := orgKey(k, org)
	if err != nil {
		return "", err
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, claims)
	tok.Header["kid"] = k.ID
	return tok.SignedString(key)
}
