project = 'admin-guide'
