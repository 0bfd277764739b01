module graphcc

go 1.26
